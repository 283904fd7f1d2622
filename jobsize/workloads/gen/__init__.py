"""Seeded, size-scaled input generators of the reference workloads (numpy; not for tasks)."""
