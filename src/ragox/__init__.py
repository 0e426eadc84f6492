"""ragox: question answering over documents where every citation is a verified passage."""

__version__ = "0.1.0"
