"""Tide-gauge time series: load, clean and resample station records."""

from tidewave._compat import MIN_SERVER_PROTOCOL
from tidewave.series import TideSeries, load

__version__ = "2.3.1"
__all__ = ["TideSeries", "load", "MIN_SERVER_PROTOCOL", "__version__"]
