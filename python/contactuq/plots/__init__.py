"""One module per kind of contactuq file; see contactuq.plot."""
