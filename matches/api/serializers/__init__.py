"""How the API's answers and query parameters look (read-only): a module per feature,
named as its view in matches.api."""
