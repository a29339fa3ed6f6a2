"""The `eviscope` subcommands only ForceBench offers (registered through `Benchmark.commands`)."""
