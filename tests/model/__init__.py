# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""Reference models shared by several tests (plain Python, no simulator inside)."""
