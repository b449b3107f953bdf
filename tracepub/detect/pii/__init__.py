"""Personal data: Presidio's recognizers (called directly, behind cheap prefilters), NER on prose, and shapes of our own (people, handles, addresses)."""
