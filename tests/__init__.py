"""The test suite; its helper modules (helpers, chain_env, odd_envs) import as tests.helpers and so on."""
