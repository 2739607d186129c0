"""The bundled demo hand, installed as the package ``companion.app.demo`` (pyproject.toml maps this
folder there): the app finds it with importlib.resources wherever it is installed."""
