"""Adapters put an agent under test; `base` holds the one-method seam and the plain face."""
