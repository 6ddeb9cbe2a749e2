"""`make verify`: a fail-closed check of a deployed cluster's GPU fabric."""
