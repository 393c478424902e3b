"""One module per wire format family; see `_base.Format`."""
