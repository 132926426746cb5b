"""The desktop app. The only package that imports Qt; it calls the engine API and never
runs engine work on the GUI thread."""
