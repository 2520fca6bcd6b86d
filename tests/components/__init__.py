"""Tests of components."""
