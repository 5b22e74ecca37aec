"""Table and pay-table files: read, checked against the games' rules, turned into the objects the
tracker runs. Above ``games`` and ``core`` (it knows every game through the registry); below
everything that starts tables."""
