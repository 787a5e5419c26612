"""Shared I/O: local or object-storage paths (`storage`) and static HTML/PNG pages (`html_page`)."""
