"""Card recognition from an overhead camera: read the printed corner index, abstain when unsure.

One table's vision is ``pipeline.VisionPipeline``: ``reader`` reads each frame against a deck
enrolled by ``enrollment`` (``deck``), ``registration`` places each card in a layout zone, and
``temporal`` turns reads that hold for a few frames into ``CardRead``/``CardRemoved`` events.
The reader's stages, in order: ``paper`` (the card mask), ``outline_corners`` and
``edge_junctions`` (corners), ``card_extent`` (card sizes), ``candidates`` (every corner source),
``indexnet`` (index windows, features, the classifiers), ``amend`` (second looks), merging in
``reader``, ``fans`` (a fan's middle cards) and ``closer`` (a closer look).
docs/vision.md describes each and why.
"""
