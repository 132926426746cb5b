from findling.cli import run

run()
