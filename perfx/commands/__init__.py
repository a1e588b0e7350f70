"""One module per ``perfx`` subcommand; perfx.cli imports a module only when its command runs."""
