"""Tests of ci."""
