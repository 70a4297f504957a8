"""The Python client's model-route tests: they need the model routes of issue 4 in the server."""
