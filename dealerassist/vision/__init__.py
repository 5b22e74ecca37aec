"""Card recognition from an overhead camera: read the printed corner index, abstain when unsure.

Pipeline: ``detect`` finds card corners on any felt, ``corner`` rectifies and splits the index
into rank and suit glyphs, ``deck`` holds the glyph templates learned from one image per card,
``reader`` turns corners into card reads with a confidence, ``temporal`` turns stable reads
into ``CardRead``/``CardRemoved`` events, ``registration`` maps the image onto the layout zones.
"""
