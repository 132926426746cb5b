from findling.launch import run

run()
