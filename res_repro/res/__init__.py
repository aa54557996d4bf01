"""Recursive environment scaling: operators, proposers, checks, lineages and the recursion itself."""
