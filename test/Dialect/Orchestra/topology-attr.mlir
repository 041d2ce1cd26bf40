// RUN: orchestra-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: orchestra-opt %s --split-input-file --verify-diagnostics | orchestra-opt --split-input-file | FileCheck %s

// The topology a program was scheduled for, as orchestra-schedule records it:
// compute_units is printed only when it is not 1.

// CHECK: module attributes {orchestra.topology = #orchestra.topology<"cpu+gpu", devices = [<"cpu0", arch = "x86_64", device_id = 0, compute_units = 2>, <"gpu0", arch = "nvidia_hopper", device_id = 0>]>}
module attributes {orchestra.topology = #orchestra.topology<"cpu+gpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0, compute_units = 2>, <"gpu0", arch = "nvidia_hopper", device_id = 0, compute_units = 1>]>} {
}

// -----

// expected-error @below {{topology 'x' has two devices named 'a'}}
module attributes {orchestra.topology = #orchestra.topology<"x", devices = [<"a", arch = "x86_64", device_id = 0>, <"a", arch = "x86_64", device_id = 1>]>} {
}

// -----

// expected-error @below {{topology 'x' has two x86_64 devices with device_id 0}}
module attributes {orchestra.topology = #orchestra.topology<"x", devices = [<"a", arch = "x86_64", device_id = 0>, <"b", arch = "x86_64", device_id = 0>]>} {
}

// -----

// expected-error @below {{device 'a' has arch 'x86_65', which this build does not know}}
// expected-error @below {{failed to parse Orchestra_TopologyAttr parameter 'devices'}}
module attributes {orchestra.topology = #orchestra.topology<"x", devices = [<"a", arch = "x86_65", device_id = 0>]>} {
}

// -----

// expected-error @below {{device 'a' needs at least one compute unit}}
// expected-error @below {{failed to parse Orchestra_TopologyAttr parameter 'devices'}}
module attributes {orchestra.topology = #orchestra.topology<"x", devices = [<"a", arch = "x86_64", device_id = 0, compute_units = 0>]>} {
}

// -----

// expected-error @below {{'orchestra.topology' must be an #orchestra.topology, not {name = "x"}}}
module attributes {orchestra.topology = {name = "x"}} {
}

// -----

module {
  // expected-error @below {{'orchestra.topology' belongs on a module}}
  func.func @f() attributes {orchestra.topology = #orchestra.topology<"x", devices = [<"a", arch = "x86_64", device_id = 0>]>} {
    return
  }
}
