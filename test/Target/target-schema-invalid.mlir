// RUN: orchestra-opt %s -split-input-file -verify-diagnostics
//
// Every error the target registry reports for a task's `target` dictionary.

func.func @arch_typo() {
  orchestra.schedule {
    // expected-error @+1 {{unknown arch "nvidia_blackwel"; did you mean "nvidia_blackwell"? known archs: amd_cdna3, aws_trainium2, google_tpu_v5e, nvidia_blackwell, nvidia_hopper, x86_64}}
    orchestra.task "t" target = {arch = "nvidia_blackwel", device_id = 0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @arch_unknown_without_suggestion() {
  orchestra.schedule {
    // expected-error @+1 {{unknown arch "riscv_vector_cluster"; known archs: amd_cdna3, aws_trainium2, google_tpu_v5e, nvidia_blackwell, nvidia_hopper, x86_64}}
    orchestra.task "t" target = {arch = "riscv_vector_cluster", device_id = 0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @arch_missing() {
  orchestra.schedule {
    // expected-error @+1 {{target is missing the mandatory key 'arch' (a string naming the architecture)}}
    orchestra.task "t" target = {device_id = 0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @arch_not_a_string() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'arch' must be a string, got 86 : i64}}
    orchestra.task "t" target = {arch = 86, device_id = 0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @device_id_missing() {
  orchestra.schedule {
    // expected-error @+1 {{target is missing the mandatory key 'device_id' (integer)}}
    orchestra.task "t" target = {arch = "amd_cdna3"} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @device_id_not_an_integer() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'device_id' must be an integer, got "0"}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = "0"} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @device_id_bool() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'device_id' must be an integer, got true}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = true} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @device_id_negative() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'device_id' must be non-negative, got -2 : i64}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = -2} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @key_wrong_type() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'mfma' of arch "amd_cdna3" must be a bool, got 1 : i64}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0, mfma = 1} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @integer_key_given_a_string() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'lds_size' of arch "amd_cdna3" must be a integer, got "64KiB"}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0, lds_size = "64KiB"} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @integer_key_below_minimum() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'lds_size' of arch "amd_cdna3" must be at least 1, got 0}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0, lds_size = 0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @string_key_not_allowed() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'sm' of arch "nvidia_hopper" must be one of "sm_90a", "sm_90"; got "sm_80"}}
    orchestra.task "t" target = {arch = "nvidia_hopper", device_id = 0, sm = "sm_80"} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @unknown_key_with_suggestion() {
  orchestra.schedule {
    // expected-error @+1 {{unknown target key 'lds_sise' for arch "amd_cdna3"; did you mean 'lds_size'? known keys: chip (string), lds_size (integer), mfma (bool), wavefront_size (integer)}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0, lds_sise = 65536} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @key_of_another_arch() {
  orchestra.schedule {
    // expected-error @+1 {{unknown target key 'mfma' for arch "nvidia_hopper"; did you mean 'tma'? known keys: num_sms (integer), shared_memory_bytes (integer), sm (string), tma (bool)}}
    orchestra.task "t" target = {arch = "nvidia_hopper", device_id = 0, mfma = true} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @float_for_integer() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'logical_core_count' of arch "google_tpu_v5e" must be a integer, got 4.000000e+00 : f64}}
    orchestra.task "t" target = {arch = "google_tpu_v5e", device_id = 0, logical_core_count = 4.0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @unknown_key_without_suggestion() {
  orchestra.schedule {
    // expected-error @+1 {{unknown target key 'vectorize_everything' for arch "x86_64"; known keys: cpu (string), features (string), num_threads (integer)}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0, vectorize_everything = true} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @device_id_too_wide() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'device_id' does not fit in 64 bits, got 18446744073709551617 : i128}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 18446744073709551617 : i128} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @integer_key_too_wide() {
  orchestra.schedule {
    // expected-error @+1 {{target key 'num_threads' of arch "x86_64" does not fit in 64 bits, got 9223372036854775808 : ui64}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0, num_threads = 9223372036854775808 : ui64} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}
