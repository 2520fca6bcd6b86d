"""The test suite; its folders mirror the source tree (config, components, policies, offline, bench, examples, ci)."""
