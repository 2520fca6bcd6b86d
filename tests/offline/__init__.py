"""Tests of offline."""
