"""The Flask dashboard: dealer, supervisor, surveillance, sign and status pages over one pit."""
