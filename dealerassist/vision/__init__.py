"""Card recognition from an overhead camera: read the printed corner index, abstain when unsure.

One table's vision is ``pipeline.VisionPipeline``: ``reader`` reads each frame against a deck
enrolled by ``enrollment`` (``deck``), ``registration`` places each card in a layout zone, and
``temporal`` turns reads that hold for a few frames into ``CardRead``/``CardRemoved`` events.
The reader's stages, in order: ``paper`` (the card mask), ``outline_corners`` and
``edge_junctions`` (corners), ``card_extent`` (card sizes), ``candidates`` (every corner source),
``index_window`` and ``index_features`` (index windows and what the classifier sees of them),
``indexnet`` (the classifiers), ``amend`` (the second looks' cascade), ``merging`` (one sighting
a card), ``backs`` (face-down cards), ``fans`` (a fan's middle cards) and ``closer`` (a closer
look); ``reader`` calls them in order.
docs/vision.md describes each and why.
"""
