"""The tiny image engine for tests and the demo: an OpenAI-images server
(``server``) backed by a randomly initialised diffusers pipeline built offline
(``pipeline``). Needs the ``image`` extra (torch, diffusers, pillow)."""
