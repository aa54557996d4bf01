"""A small shop back end: pricing, carts and checkout."""
