// The translation unit that compiles cmake/OrchestraUpstreamHeaders.h into
// the precompiled header the build reuses.
