"""``res-repro view``: static pages over a run's tables, its episodes and its lineages, served locally or
written as a bundle (see :func:`write_bundle`, :func:`write_cached_bundle` and :func:`serve`)."""

from res_repro.viewer.bundle import write_bundle
from res_repro.viewer.cache import write_cached_bundle
from res_repro.viewer.serve import serve
from res_repro.viewer.sources import ViewSource, resolve_source

__all__ = ["ViewSource", "resolve_source", "serve", "write_bundle", "write_cached_bundle"]
