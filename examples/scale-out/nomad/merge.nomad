# The merge: once every shard of tressi-shards has finished, one report over
# all of them, exact (row by row), with the plan's thresholds judged on the
# whole load; the task exits 2 when one fails.
#
#   nomad job run -var run=r1 merge.nomad
#   nomad alloc logs -job tressi-merge

variable "image" {
  type    = string
  default = "tressi:0.1.0-dev"
}

variable "shards" {
  type    = number
  default = 4
}

variable "run" {
  type = string
}

job "tressi-merge" {
  type = "batch"

  group "merge" {
    reschedule {
      attempts  = 0
      unlimited = false
    }

    restart {
      attempts = 0
      mode     = "fail"
    }

    volume "results" {
      type      = "host"
      source    = "tressi-results"
      read_only = true
    }

    task "report" {
      driver = "docker"

      config {
        image = var.image
        args = concat(
          ["report"],
          [for i in range(var.shards) : "/results/${var.run}/shard-${i}"],
          ["--format", "md"],
        )
      }

      volume_mount {
        volume      = "results"
        destination = "/results"
        read_only   = true
      }

      resources {
        cpu    = 1000
        memory = 256
      }
    }
  }
}
