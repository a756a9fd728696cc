# Four shards of one schedule, one allocation each on its own client, all
# starting at the same wall-clock instant. Walk-through: ../README.md.
#
#   nomad job run -var start_at=2026-01-01T12:00:00Z -var run=r1 \
#     -var schedule_hash=sha256:… shards.nomad     # from examples/scale-out/
#
# The plan's sources travel inside the job (file() reads them when the job is
# submitted; a template writes them into the task), and every shard compiles
# them itself, refusing to run unless they compile to schedule_hash.

variable "image" {
  type    = string
  default = "tressi:0.1.0-dev" # container/build, pushed to a registry the clients pull from
}

variable "shards" {
  type    = number
  default = 4
}

variable "start_at" {
  type        = string
  description = "RFC 3339 instant every shard starts at, a minute or two ahead"
}

variable "schedule_hash" {
  type        = string
  description = "what `tressi plan plan/` prints as the schedule, with the same variables"
}

variable "run" {
  type        = string
  description = "names this run's directory on the results volume"
}

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}

# Sized from the plan (README: "Sizing"): whole cores, reserved for the
# shard, as `1 + peak req/s per shard × 20 µs`; memory covers compiling the
# plan and the run (peak RSS 28 MiB at 20k req/s).
variable "cores" {
  type    = number
  default = 2
}

variable "memory_mb" {
  type    = number
  default = 512
}

job "tressi-shards" {
  type = "batch"

  group "shards" {
    count = var.shards

    # One shard per client: shards sharing a machine share its CPU and NIC.
    constraint {
      operator = "distinct_hosts"
      value    = "true"
    }

    # A shard must never run twice: a batch job is rescheduled once by
    # default, which would send that shard's load again, late. A failed shard
    # stays failed; the report then says which slots are missing.
    reschedule {
      attempts  = 0
      unlimited = false
    }

    restart {
      attempts = 0
      mode     = "fail"
    }

    # Results go straight to a host volume, so they outlive the allocation
    # (alloc/data is garbage-collected). Every client declares it in its
    # config, on one shared mount (NFS) so the merge job sees all shards:
    #   client { host_volume "tressi-results" { path = "/mnt/tressi-results" } }
    volume "results" {
      type      = "host"
      source    = "tressi-results"
      read_only = false
    }

    task "apply" {
      driver = "docker" # or "podman" (nomad-driver-podman): the same config

      config {
        image = var.image
        args = [
          "apply", "/local/plan", "--quiet",
          "--expect-hash", var.schedule_hash,
          "--shard", "${NOMAD_ALLOC_INDEX}/${var.shards}",
          "--start-at", var.start_at,
          "--out", "/results/${var.run}/shard-${NOMAD_ALLOC_INDEX}",
        ]
        ulimit {
          nofile = "20000:20000"
        }
      }

      volume_mount {
        volume      = "results"
        destination = "/results"
      }

      env {
        TRESSI_VAR_base_url = var.base_url
      }

      template {
        data        = file("plan/plan.hcl")
        destination = "local/plan/plan.hcl"
      }

      # Sensitive variables from Nomad Variables (nomad var put
      # nomad/jobs/tressi-shards token=…), as TRESSI_VAR_token: never in the
      # job spec, results, reports or meta.json.
      template {
        data        = <<-EOT
          {{ with nomadVar "nomad/jobs/tressi-shards" }}TRESSI_VAR_token={{ .token }}{{ end }}
        EOT
        destination = "secrets/tressi.env"
        env         = true
      }

      resources {
        cores  = var.cores
        memory = var.memory_mb
      }
    }
  }
}
