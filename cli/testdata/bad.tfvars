base_url = "ftp://nope"
