# Run one compiled schedule as 4 shards on Nomad, no coordinator needed.
#
#   tressi plan plan.hcl -out run.tplan    # served to the allocations by the artifact block
#   START=$(date -u -d '+2 min' +%Y-%m-%dT%H:%M:%SZ)
#   nomad job run -var start_at=$START nomad-batch.nomad
#   tressi report shard-0 shard-1 shard-2 shard-3
#
# Each allocation of the group gets NOMAD_ALLOC_INDEX 0..3; --shard i/4 sends
# the slots k with k mod 4 == i, all shards starting at the same wall clock.
variable "start_at" {
  type = string
}

variable "tplan_url" {
  type    = string
  default = "http://artifacts.internal/run.tplan"
}

job "tressi" {
  type = "batch"

  group "shards" {
    count = 4

    restart {
      attempts = 0 # a re-run shard would send its load twice
      mode     = "fail"
    }

    task "apply" {
      driver = "exec"

      artifact {
        source      = var.tplan_url
        destination = "local/"
      }

      config {
        command = "tressi"
        args = [
          "apply", "local/run.tplan", "--quiet",
          "--shard", "${NOMAD_ALLOC_INDEX}/4",
          "--start-at", var.start_at,
          "--out", "alloc/data/shard-${NOMAD_ALLOC_INDEX}",
        ]
      }
    }
  }
}
