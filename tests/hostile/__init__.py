"""The table of hostile and malformed inputs that gradcli must refuse safely (issue 3)."""
