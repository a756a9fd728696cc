package plan

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeDataBlock(b *hcl.Block) (*Data, hcl.Diagnostics) {
	content, diags := b.Body.Content(dataSchema)
	d := &Data{Name: b.Labels[0], Order: DataSequential, DeclRange: b.DefRange}
	order, dd := l.enumAttr(content.Attributes, "order", DataSequential, DataRandom)
	diags = append(diags, dd...)
	if order != "" {
		d.Order = order
	}
	name, attr, dd := l.stringAttr(content.Attributes, "csv")
	diags = append(diags, dd...)
	if attr != nil {
		d.CSV = name
		dd = l.readCSV(d, attr)
		diags = append(diags, dd...)
	}
	if prev, dup := l.data[d.Name]; dup {
		return nil, append(diags, duplicate("data", d.Name, b.DefRange, prev.DeclRange))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	l.data[d.Name] = d
	return d, diags
}

// readCSV loads the rows now, so a missing file or a ragged row is a plan
// error rather than a failure halfway through a run, and the bytes join the
// plan's sources for replays.
func (l *loader) readCSV(d *Data, attr *hcl.Attribute) hcl.Diagnostics {
	path := l.resolve(d.CSV)
	src, err := l.src.ReadFile(path)
	if err != nil {
		return hcl.Diagnostics{attrError(attr, "Cannot read CSV file",
			fmt.Sprintf("%s: %v. The path is relative to the plan file's directory.", path, err))}
	}
	l.sources[path] = src
	l.warnOutside(path, attr.Expr.Range().Ptr())
	r := csv.NewReader(bytes.NewReader(src))
	r.ReuseRecord = false
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return hcl.Diagnostics{attrError(attr, "Empty CSV file", fmt.Sprintf("%s is empty; its first row must name the columns, such as \"username,password\", followed by data rows.", path))}
	}
	if err != nil {
		return hcl.Diagnostics{attrError(attr, "Invalid CSV file", fmt.Sprintf("%s: %v.", path, err))}
	}
	seen := map[string]bool{}
	for i, col := range header {
		if col == "" || seen[col] {
			return hcl.Diagnostics{attrError(attr, "Invalid CSV header",
				fmt.Sprintf("%s: column %d of the header row is empty or repeated (%q); every column needs its own name, used as row.<name>.", path, i+1, col))}
		}
		seen[col] = true
	}
	d.Columns = header
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return hcl.Diagnostics{attrError(attr, "Invalid CSV file",
					fmt.Sprintf("%s line %d has a different number of fields than the header's %d columns; every row must have one value per column.", path, pe.StartLine, len(header)))}
			}
			return hcl.Diagnostics{attrError(attr, "Invalid CSV file", fmt.Sprintf("%s: %v.", path, err))}
		}
		d.Rows = append(d.Rows, rec)
	}
	if len(d.Rows) == 0 {
		return hcl.Diagnostics{attrError(attr, "Empty CSV file", fmt.Sprintf("%s has a header row but no data rows; add at least one row.", path))}
	}
	return nil
}
