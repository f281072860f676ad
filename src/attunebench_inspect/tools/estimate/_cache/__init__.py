"""The providers' prompt caches as their documentation describes them: a request as a cache sees
it (`prompt`), the rules (`rules`) and token counting (`count`). The estimate bills with them;
the loopback endpoints of the tests serve requests by them, so both count alike."""
