"""One module per ``eviscope`` subcommand."""
