"""Renderers: each turns a GradResult into text; none of them computes anything."""
