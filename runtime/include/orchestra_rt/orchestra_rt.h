/*===- orchestra_rt.h - The OrchestraOS runtime C API -------------*- C -*-===*\
|*                                                                            *|
|* Part of OrchestraOS.                                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Loads an OrchestraOS artifact (`.orcx`, see docs/Artifact.md) and runs its
 * plan. An artifact describes devices, memory spaces, buffer slots, constants,
 * kernel binaries and the steps of the plan. A session allocates one arena per
 * memory space, copies the constants in, loads the kernels and starts one
 * worker thread (queue) per device; each run executes every step on its
 * device's queue in plan order after the steps it depends on.
 *
 * Errors are reported as status objects: NULL means success, anything else
 * carries a message and must be released with orx_status_free. No function
 * aborts on bad input.
 *
 * Thread safety: artifacts are immutable and may be shared; a session runs one
 * plan at a time (concurrent orx_session_run calls on one session are
 * serialised).
 */

#ifndef ORCHESTRA_RT_ORCHESTRA_RT_H
#define ORCHESTRA_RT_ORCHESTRA_RT_H

#include <stddef.h>
#include <stdint.h>

#if defined(ORX_BUILDING_RUNTIME)
#define ORX_API __attribute__((visibility("default")))
#else
#define ORX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*/
/* Status                                                                     */
/*===----------------------------------------------------------------------===*/

/** The result of a call that can fail: NULL on success. */
typedef struct orx_status_s *orx_status_t;

/** The error message of `status` ("" for NULL). Valid until freed. */
ORX_API const char *orx_status_message(orx_status_t status);
/** Releases `status`; NULL is a no-op. */
ORX_API void orx_status_free(orx_status_t status);

/*===----------------------------------------------------------------------===*/
/* Element types                                                              */
/*===----------------------------------------------------------------------===*/

/** Element types; the values are those of the artifact format. */
typedef enum orx_dtype_t {
  ORX_DTYPE_F32 = 0,
  ORX_DTYPE_F64 = 1,
  ORX_DTYPE_F16 = 2,
  ORX_DTYPE_BF16 = 3,
  ORX_DTYPE_I1 = 4, /* one byte per element */
  ORX_DTYPE_I8 = 5,
  ORX_DTYPE_I16 = 6,
  ORX_DTYPE_I32 = 7,
  ORX_DTYPE_I64 = 8,
  ORX_DTYPE_U8 = 9,
  ORX_DTYPE_U16 = 10,
  ORX_DTYPE_U32 = 11,
  ORX_DTYPE_U64 = 12
} orx_dtype_t;

/** "f32", "f64", "f16", "bf16", "i1", "i8", "i16", "i32", "i64", "u8", "u16",
 * "u32", "u64", or
 * NULL for an unknown value. */
ORX_API const char *orx_dtype_name(uint32_t dtype);
/** Bytes per element, 0 for an unknown value. */
ORX_API size_t orx_dtype_size(uint32_t dtype);

/*===----------------------------------------------------------------------===*/
/* Artifacts                                                                  */
/*===----------------------------------------------------------------------===*/

typedef struct orx_artifact_s orx_artifact_t;

/** Reads and validates the artifact at `path`. */
ORX_API orx_status_t orx_artifact_load_file(const char *path,
                                            orx_artifact_t **out);
/** Validates an artifact in memory; `data` is copied as needed. */
ORX_API orx_status_t orx_artifact_load_memory(const void *data, size_t size,
                                              orx_artifact_t **out);
/** Releases `artifact`; NULL is a no-op. Sessions created from it stay
 * valid. */
ORX_API void orx_artifact_free(orx_artifact_t *artifact);

/* Introspection. Strings stay valid as long as the artifact. Out-of-range
 * indices return NULL / 0. */
ORX_API const char *orx_artifact_entry_name(const orx_artifact_t *artifact);
ORX_API const char *orx_artifact_topology_name(const orx_artifact_t *artifact);
ORX_API const char *orx_artifact_producer(const orx_artifact_t *artifact);
/** The FNV-1a 64-bit hash of the artifact's payload, as its header records
 * it: what names the artifact to the feedback service and its cache
 * (`orchestra-compile --jit-cache`); 0 for NULL. */
ORX_API uint64_t orx_artifact_hash(const orx_artifact_t *artifact);
ORX_API size_t orx_artifact_num_devices(const orx_artifact_t *artifact);
ORX_API const char *orx_artifact_device_name(const orx_artifact_t *artifact,
                                             size_t device);
ORX_API const char *orx_artifact_device_arch(const orx_artifact_t *artifact,
                                             size_t device);
/** The runtime driver of the device (e.g. "cpu"). */
ORX_API const char *orx_artifact_device_driver(const orx_artifact_t *artifact,
                                               size_t device);
/** Checks that the artifact was built for the topology that `topology_json`
 * (`length` bytes: the text of a topology file, as orchestra-compile takes
 * it) describes: the same topology name and the same devices (name and arch)
 * in the same order. Returns NULL when it was, else a status that names
 * both, or why the text is not a topology. */
ORX_API orx_status_t orx_artifact_check_topology(const orx_artifact_t *artifact,
                                                 const char *topology_json,
                                                 size_t length);
ORX_API size_t orx_artifact_num_memory_spaces(const orx_artifact_t *artifact);
ORX_API const char *
orx_artifact_memory_space_name(const orx_artifact_t *artifact, size_t space);
/** The peak bytes of the space's arena (what a session allocates). */
ORX_API uint64_t orx_artifact_memory_space_arena_bytes(
    const orx_artifact_t *artifact, size_t space);
ORX_API size_t orx_artifact_num_inputs(const orx_artifact_t *artifact);
ORX_API size_t orx_artifact_num_outputs(const orx_artifact_t *artifact);

/** An input or output of the entry function. Pointers stay valid as long as
 * the artifact. */
typedef struct orx_tensor_info_t {
  const char *name;
  uint32_t dtype; /* an orx_dtype_t */
  size_t rank;
  const int64_t *dims; /* `rank` row-major dimensions; -1: dynamic */
  size_t byte_size;    /* what orx_session_run expects for it; 0 when a
                          dimension is dynamic (see orx_session_set_input_shape
                          and orx_session_output_shape) */
} orx_tensor_info_t;

ORX_API orx_status_t orx_artifact_input_info(const orx_artifact_t *artifact,
                                             size_t index,
                                             orx_tensor_info_t *out);
ORX_API orx_status_t orx_artifact_output_info(const orx_artifact_t *artifact,
                                              size_t index,
                                              orx_tensor_info_t *out);

/** Dynamic dims: an artifact compiled once for a range of sizes names its
 * dynamic dimensions ("batch", "seq"). Each run takes their sizes from the
 * input shapes set with orx_session_set_input_shape; a size must lie in
 * [min, max]. */
ORX_API size_t orx_artifact_num_dims(const orx_artifact_t *artifact);
ORX_API orx_status_t orx_artifact_dim_info(const orx_artifact_t *artifact,
                                           size_t index, const char **name,
                                           int64_t *min, int64_t *max);

/*===----------------------------------------------------------------------===*/
/* Sessions                                                                   */
/*===----------------------------------------------------------------------===*/

typedef struct orx_session_s orx_session_t;

/** Prepares `artifact` for running: allocates the arenas (one per memory
 * space, page-aligned, hence 64-byte aligned, and zero-filled), copies the
 * constants, loads the kernel binaries (after checking their arch and CPU
 * features against this machine) and starts one worker thread per device.
 * The artifact may be freed afterwards. */
ORX_API orx_status_t orx_session_create(const orx_artifact_t *artifact,
                                        orx_session_t **out);
/** Stops the workers and releases everything; NULL is a no-op. */
ORX_API void orx_session_free(orx_session_t *session);

/** Sets the shape of input `index` (`rank` dims) for the next runs: needed
 * before the first run for an input with dynamic dimensions. Each dynamic
 * dimension must lie in its dim's range, and its static ones must match;
 * runs check that inputs sharing a dim agree. */
ORX_API orx_status_t orx_session_set_input_shape(orx_session_t *session,
                                                 size_t index,
                                                 const int64_t *dims,
                                                 size_t rank);
/** The shape of output `index` for the input shapes set: its rank in
 * `*rank`, its dims in `dims` (room for `capacity`). */
ORX_API orx_status_t orx_session_output_shape(const orx_session_t *session,
                                              size_t index, int64_t *dims,
                                              size_t capacity, size_t *rank);

/** Runs the plan once: copies each input (`input_sizes[i]` must equal its
 * byte size, at the shape set for a dynamic input) into its slot, executes
 * every step, then copies each output into `outputs[i]` (`output_sizes[i]`
 * must equal its byte size, at orx_session_output_shape's shape for a
 * dynamic output). */
ORX_API orx_status_t orx_session_run(orx_session_t *session,
                                     const void *const *inputs,
                                     const size_t *input_sizes,
                                     size_t num_inputs, void *const *outputs,
                                     const size_t *output_sizes,
                                     size_t num_outputs);

/*===----------------------------------------------------------------------===*/
/* Replacing a kernel (hot swap)                                              */
/*===----------------------------------------------------------------------===*/

/** Replaces kernel `symbol` (the symbol of one of the artifact's kernels,
 * `orx_kernel_<task>`) in every step that launches it by the kernel of the
 * same symbol in the kernel binary `data` (`size` bytes) of `format`
 * ("elf-shared-object", "gpu-module-bundle", "pjrt-bundle"), for the same
 * devices: the binary the feedback loop's recompilation returns. Waits for
 * a run of the session in progress and takes effect from the next run;
 * `data` is copied. Every launch of the kernel is prepared before any is
 * swapped: on an error (no such kernel, a binary the devices refuse, no
 * such symbol in it) the old kernel stays and keeps running. */
ORX_API orx_status_t orx_session_replace_kernel(orx_session_t *session,
                                                const char *symbol,
                                                const void *data, size_t size,
                                                const char *format);

/** Replaces the session's whole plan by that of `artifact`, whose entry has
 * the same inputs and outputs (names aside: dtypes and shapes, dynamic
 * dimensions alike): the new artifact the feedback loop's recompilation
 * returns. The new plan is prepared first (arenas, constants, kernels); the
 * shapes set for dynamic inputs carry over; then, after a run of the session
 * in progress, it takes the old plan's place, from the next run on. On an
 * error the old plan stays and keeps running. The trace and the branch
 * counters start afresh. The artifact may be freed afterwards. */
ORX_API orx_status_t orx_session_replace_artifact(
    orx_session_t *session, const orx_artifact_t *artifact);

/*===----------------------------------------------------------------------===*/
/* Branch profile (orchestra-compile --profile-branches)                      */
/*===----------------------------------------------------------------------===*/

/** What the counters of one branch of a profiled kernel say, on one device,
 * over the runs since the session was made or its profile reset: the fields
 * of a DivergenceProfile record (proto/divergence_profile.proto). */
typedef struct orx_branch_record_t {
  const char *kernel;        /* the kernel's symbol */
  uint32_t branch_id;        /* the kernel's branch number, from 0 */
  const char *location;      /* where the branch is in the source */
  const char *device;        /* the device's name in the artifact */
  const char *hardware_id;   /* its arch and what the machine reports */
  uint64_t invocation_count; /* launches of the kernel on the device */
  /* Evaluations of the condition: true (then path, or a loop's next
   * iteration) and false (else path, or the loop's exit). */
  uint64_t then_count;
  uint64_t else_count;
  /* GPUs: warps that evaluated the condition and those whose active lanes
   * disagreed; 0 on CPUs. */
  uint64_t warps;
  uint64_t divergent_warps;
  uint64_t input_shape_hash; /* FNV-1a of the inputs' dtypes and dims */
} orx_branch_record_t;

/** Reads the branch counters of the session's profiled kernels (waiting for a
 * run in progress) into a snapshot of `*count` records, one per branch and
 * device; 0 for an artifact compiled without branch probes. The snapshot's
 * strings stay valid until the next call of this function, a reset or
 * orx_session_free. */
ORX_API orx_status_t orx_session_branch_profile_size(orx_session_t *session,
                                                     size_t *count);
/** Record `index` of the last snapshot. */
ORX_API orx_status_t orx_session_branch_profile_record(
    const orx_session_t *session, size_t index, orx_branch_record_t *out);
/** Zeroes the branch counters and launch counts (and drops the snapshot). */
ORX_API orx_status_t orx_session_branch_profile_reset(orx_session_t *session);

/*===----------------------------------------------------------------------===*/
/* Trace of the last run                                                      */
/*===----------------------------------------------------------------------===*/

typedef enum orx_step_kind_t {
  ORX_STEP_LAUNCH = 0, /* a kernel launch */
  ORX_STEP_COPY = 1,   /* a copy between memory spaces */
  ORX_STEP_SELECT = 2  /* a commit: one of two lists copied, by a condition */
} orx_step_kind_t;

/** One step of the last run. */
typedef struct orx_trace_event_t {
  const char *name;  /* valid as long as the session */
  uint32_t kind;     /* an orx_step_kind_t */
  uint32_t device;   /* the index of the device whose queue ran it */
  uint64_t start_ns; /* relative to the start of the run */
  uint64_t end_ns;
  double predicted_start; /* seconds, from the scheduler; < 0 when none */
  double predicted_finish;
  /* The time of a step of an asynchronous device (a GPU) on that device
   * (timing events recorded around it on its queue), in nanoseconds; 0 for
   * the steps of CPU devices and where the driver cannot time.
   * start_ns/end_ns of such a step are host times: from its enqueueing to
   * the moment the host saw it complete. */
  uint64_t device_ns;
} orx_trace_event_t;

/** The number of events of the last run, one per step in plan order; 0
 * before the first run and after a failed one. Not to be called while a run
 * of the session is in progress. */
ORX_API size_t orx_session_trace_size(const orx_session_t *session);
ORX_API orx_status_t orx_session_trace_event(const orx_session_t *session,
                                             size_t index,
                                             orx_trace_event_t *out);
/** Which list select step `index` (ORX_STEP_SELECT) of the last run took: 1
 * its true values, 0 its false ones; -1 for another step or an index past
 * the trace. */
ORX_API int orx_session_trace_selected(const orx_session_t *session,
                                       size_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ORCHESTRA_RT_ORCHESTRA_RT_H */
