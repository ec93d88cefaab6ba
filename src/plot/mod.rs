//! Chart models and their drawing (plotters, SVG and PNG).
