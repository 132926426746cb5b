"""Measurement tools (`findling bench`, `findling eval`, screenshots): they drive the
product from outside and are not part of it. Nothing in the product imports them."""
