package report

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// An XLSX workbook is a zip of SpreadsheetML parts (ECMA-376). The report's
// needs are small: a few sheets of text and number cells, the first column
// widened. Writing the parts here, rather than through a spreadsheet
// library, keeps that library's package initialisation, which every
// tressi command paid at start (bench/README.md, session 13), out of the
// binary; the tests read the workbooks back with excelize and with
// encoding/xml.

// xlsxSheet is one worksheet: its name and rows of string, integer or
// float cells.
type xlsxSheet struct {
	name string
	rows [][]any
}

// maxCellChars is the most characters a cell holds in Excel; a longer
// text (a sampled body) is cut there, as excelize did.
const maxCellChars = 32767

// writeXLSX writes sheets as a workbook whose entries are dated modified.
func writeXLSX(w io.Writer, sheets []xlsxSheet, modified time.Time) error {
	z := zip.NewWriter(w)
	part := func(name string, write func(*bufio.Writer)) error {
		f, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return err
		}
		b := bufio.NewWriter(f)
		b.WriteString(xml.Header)
		write(b)
		return b.Flush()
	}
	strs := newSharedStrings()
	sheetXML := make([][]byte, len(sheets))
	for i, sh := range sheets {
		var err error
		if sheetXML[i], err = worksheetXML(sh.rows, strs); err != nil {
			return fmt.Errorf("xlsx sheet %s: %w", sh.name, err)
		}
	}
	parts := []struct {
		name  string
		write func(*bufio.Writer)
	}{
		{"[Content_Types].xml", func(b *bufio.Writer) { contentTypes(b, len(sheets)) }},
		{"_rels/.rels", func(b *bufio.Writer) {
			b.WriteString(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
				`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
				`</Relationships>`)
		}},
		{"xl/workbook.xml", func(b *bufio.Writer) { workbookXML(b, sheets) }},
		{"xl/_rels/workbook.xml.rels", func(b *bufio.Writer) { workbookRels(b, len(sheets)) }},
		{"xl/styles.xml", func(b *bufio.Writer) { b.WriteString(stylesXML) }},
		{"xl/sharedStrings.xml", strs.write},
	}
	for _, p := range parts {
		if err := part(p.name, p.write); err != nil {
			return err
		}
	}
	for i := range sheets {
		if err := part(fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), func(b *bufio.Writer) { b.Write(sheetXML[i]) }); err != nil {
			return err
		}
	}
	return z.Close()
}

const (
	nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRels = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

func contentTypes(b *bufio.Writer, sheets int) {
	b.WriteString(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
		`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
		`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>`)
	for i := range sheets {
		fmt.Fprintf(b, `<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`, i+1)
	}
	b.WriteString(`</Types>`)
}

func workbookXML(b *bufio.Writer, sheets []xlsxSheet) {
	b.WriteString(`<workbook xmlns="` + nsMain + `" xmlns:r="` + nsRels + `"><sheets>`)
	for i, sh := range sheets {
		b.WriteString(`<sheet name="`)
		xml.EscapeText(b, []byte(sh.name))
		fmt.Fprintf(b, `" sheetId="%d" r:id="rId%d"/>`, i+1, i+1)
	}
	b.WriteString(`</sheets></workbook>`)
}

func workbookRels(b *bufio.Writer, sheets int) {
	b.WriteString(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i := range sheets {
		fmt.Fprintf(b, `<Relationship Id="rId%d" Type="%s/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, nsRels, i+1)
	}
	fmt.Fprintf(b, `<Relationship Id="rId%d" Type="%s/styles" Target="styles.xml"/>`, sheets+1, nsRels)
	fmt.Fprintf(b, `<Relationship Id="rId%d" Type="%s/sharedStrings" Target="sharedStrings.xml"/>`, sheets+2, nsRels)
	b.WriteString(`</Relationships>`)
}

// stylesXML is the least stylesheet Excel opens without a repair prompt:
// one font, the two fills it reserves, one border, one cell format.
const stylesXML = `<styleSheet xmlns="` + nsMain + `">` +
	`<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
	`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
	`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
	`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
	`<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>` +
	`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
	`</styleSheet>`

// worksheetXML is one sheet's part: its used range, the first column's
// width, and the cells.
func worksheetXML(rows [][]any, strs *sharedStrings) ([]byte, error) {
	var b []byte
	b = append(b, `<worksheet xmlns="`+nsMain+`" xmlns:r="`+nsRels+`">`...)
	b = append(b, `<dimension ref="`+sheetDimension(rows)+`"/>`...)
	b = append(b, `<cols><col min="1" max="1" width="28" customWidth="1"/></cols><sheetData>`...)
	for r, row := range rows {
		b = append(b, `<row r="`...)
		b = strconv.AppendInt(b, int64(r+1), 10)
		b = append(b, `">`...)
		for c, v := range row {
			ref := cellRef(c+1, r+1)
			switch v := v.(type) {
			case nil:
				continue
			case string:
				b = appendStringCell(b, ref, strs.index(v))
			case float64:
				if math.IsNaN(v) || math.IsInf(v, 0) { // no number in a sheet
					b = appendStringCell(b, ref, strs.index(strconv.FormatFloat(v, 'g', -1, 64)))
					continue
				}
				b = appendNumberCell(b, ref, strconv.AppendFloat(nil, v, 'g', -1, 64))
			case int:
				b = appendNumberCell(b, ref, strconv.AppendInt(nil, int64(v), 10))
			case int64:
				b = appendNumberCell(b, ref, strconv.AppendInt(nil, v, 10))
			case uint16:
				b = appendNumberCell(b, ref, strconv.AppendUint(nil, uint64(v), 10))
			default:
				return nil, fmt.Errorf("cell %s holds a %T", ref, v)
			}
		}
		b = append(b, `</row>`...)
	}
	b = append(b, `</sheetData></worksheet>`...)
	return b, nil
}

func appendStringCell(b []byte, ref string, i int) []byte {
	b = append(b, `<c r="`+ref+`" t="s"><v>`...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, `</v></c>`...)
}

func appendNumberCell(b []byte, ref string, num []byte) []byte {
	b = append(b, `<c r="`+ref+`"><v>`...)
	b = append(b, num...)
	return append(b, `</v></c>`...)
}

// cellRef is the A1-style name of column col, row row (both from 1).
func cellRef(col, row int) string {
	var name []byte
	for ; col > 0; col = (col - 1) / 26 {
		name = append([]byte{byte('A' + (col-1)%26)}, name...)
	}
	return string(strconv.AppendInt(name, int64(row), 10))
}

// sharedStrings is the workbook's string table: each distinct text once,
// cells refer to it by index.
type sharedStrings struct {
	at    map[string]int
	list  []string
	count int
}

func newSharedStrings() *sharedStrings { return &sharedStrings{at: map[string]int{}} }

func (s *sharedStrings) index(v string) int {
	if len(v) > maxCellChars {
		if r := []rune(v); len(r) > maxCellChars {
			v = string(r[:maxCellChars])
		}
	}
	s.count++
	if i, ok := s.at[v]; ok {
		return i
	}
	s.at[v] = len(s.list)
	s.list = append(s.list, v)
	return len(s.list) - 1
}

func (s *sharedStrings) write(b *bufio.Writer) {
	fmt.Fprintf(b, `<sst xmlns="%s" count="%d" uniqueCount="%d">`, nsMain, s.count, len(s.list))
	for _, v := range s.list {
		// preserve: a text's own leading or trailing spaces and newlines
		// stay; EscapeText writes U+FFFD for what XML cannot hold.
		b.WriteString(`<si><t xml:space="preserve">`)
		xml.EscapeText(b, []byte(v))
		b.WriteString(`</t></si>`)
	}
	b.WriteString(`</sst>`)
}
