"""HTML pages of the pooling app."""
