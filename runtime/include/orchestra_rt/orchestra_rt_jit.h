/*===- orchestra_rt_jit.h - The feedback loop's client ---------*- C -*-===*\
|*                                                                          *|
|* Part of OrchestraOS.                                                     *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * The client of the feedback service (orchestra-jit-server, design/0019),
 * in its own library, liborchestra_rt_jit.so, so that liborchestra_rt.so
 * links neither gRPC nor protobuf. After a given number of runs of a
 * session whose artifact counts its branches (orchestra-compile
 * --profile-branches), it sends the branch profile to the service from a
 * background thread, and applies the reply between two runs, at a later
 * orx_jit_client_after_run or orx_jit_client_finish: a new plan replaces
 * the session's (orx_session_replace_artifact). Every error (the service
 * down or slow, a refused request, a failed recompilation or swap) leaves
 * the session on its old plan and is reported by orx_jit_client_state,
 * never fatal.
 */

#ifndef ORCHESTRA_RT_ORCHESTRA_RT_JIT_H
#define ORCHESTRA_RT_ORCHESTRA_RT_JIT_H

#include "orchestra_rt/orchestra_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orx_jit_client_s orx_jit_client_t;

typedef enum orx_jit_state_t {
  ORX_JIT_COUNTING = 0, /* counting runs before sending the profile */
  ORX_JIT_WAITING = 1,  /* the profile is sent, the reply not applied yet */
  ORX_JIT_SWAPPED = 2,  /* the service's new plan runs */
  ORX_JIT_KEPT = 3,     /* no gain, disabled, or nothing to send: old plan */
  ORX_JIT_FAILED = 4,   /* an error: the old plan runs */
  ORX_JIT_REVERTED = 5  /* the new plan ran slower: the old one is back */
} orx_jit_state_t;

/** A client of the service at `address` (HOST:PORT) for sessions of
 * `artifact` (its hash names it to the service; the artifact must stay
 * valid while the client lives: a swap back restores it): it sends the
 * profile after `runs_before_profile` runs (at least 1) and gives the
 * service `timeout_ms` to answer. */
ORX_API orx_status_t orx_jit_client_create(const char *address,
                                           const orx_artifact_t *artifact,
                                           uint32_t runs_before_profile,
                                           uint32_t timeout_ms,
                                           orx_jit_client_t **out);
/** To call after each run of `session` (never during one): counts the run,
 * sends the profile once enough runs are counted, and applies a reply that
 * has arrived. Fails only on null arguments. */
ORX_API orx_status_t orx_jit_client_after_run(orx_jit_client_t *client,
                                              orx_session_t *session);
/** The measured check of a new plan (on by default: 10 runs, 0.05): after
 * a swap, the median span of the steps of the new plan's first `runs` runs
 * is compared with that of the last `runs` runs before it, read from the
 * session's trace; when it is more than `max_slowdown` (a fraction) longer,
 * the old plan is swapped back (ORX_JIT_REVERTED). `runs` 0 turns the check
 * off. */
ORX_API orx_status_t orx_jit_client_set_check(orx_jit_client_t *client,
                                              uint32_t runs,
                                              double max_slowdown);
/** Waits up to `timeout_ms` for a reply in flight and applies it. */
ORX_API orx_status_t orx_jit_client_finish(orx_jit_client_t *client,
                                           orx_session_t *session,
                                           uint32_t timeout_ms);
/** The client's state, and in `*message` (when not NULL) what happened: the
 * service's reason or the error; valid until the next call on the client. */
ORX_API orx_jit_state_t orx_jit_client_state(const orx_jit_client_t *client,
                                             const char **message);
/** Waits for a request in flight (up to its timeout) and frees the client;
 * NULL is a no-op. */
ORX_API void orx_jit_client_free(orx_jit_client_t *client);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ORCHESTRA_RT_ORCHESTRA_RT_JIT_H */
