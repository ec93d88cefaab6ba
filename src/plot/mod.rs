//! Chart models and their drawing (plotters, SVG and PNG).
//!
//! Every chart is two steps (STYLE.md item 12):
//!
//! 1. a *model*: plain data computed from a plain input struct — axis ranges
//!    and ticks, roof segments, ridge points, marker positions and sizes,
//!    which labels are placed where (in pixels of the fixed canvas). Models
//!    are unit-tested without drawing anything;
//! 2. a *drawer*: a function generic over the plotters [`DrawingBackend`]
//!    that paints a model, used by [`render_svg`]-style entry points for SVG
//!    text and PNG bytes.
//!
//! The font (DejaVu Sans, `assets/fonts/`) is compiled into the binary and
//! registered with plotters' `ab_glyph` renderer, so text is measured and
//! rasterised identically on every machine, with or without fontconfig.
//! Same input, same bytes.
//!
//! Charts: [`roofline`] (`rooftrace ncu --plot`; [`ops`] puts `rooftrace
//! ops --plot`'s rows on it), [`budget`] (`rooftrace budget --plot`), [`timeline`] and
//! [`histogram`] (`rooftrace gaps --plot/--plot-hist`), [`calibration`]
//! (`rooftrace calibrate --plot`).

pub mod axis;
pub mod budget;
pub mod calibration;
pub mod comm;
pub mod diff;
mod draw;
pub mod extent;
mod from_gaps;
pub mod histogram;
pub mod labels;
pub mod ops;
pub mod projection;
pub mod roofline;
pub mod style;
pub mod ticks;
pub mod timeline;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

pub use budget::{BudgetBar, BudgetChart, BudgetInput};
pub use calibration::{CalibrationChart, CalibrationInput, CalibrationPoint, SweepKind};
pub use comm::{CommChart, CommInput, CommPoint};
pub use diff::{DiffIdleChart, DiffIdleInput, DiffRooflineChart, DiffRooflineInput};
pub use histogram::{GapHistogram, GapSample, HistogramInput};
pub use ops::OpsRooflineInput;
pub use projection::{ProjectionRooflineChart, ProjectionRooflineInput};
pub use roofline::{KernelPoint, RooflineChart, RooflineInput};
pub use timeline::{
    busiest_window, GapBar, Lane, OpBar, OpKind, TimeOrigin, TimelineChart, TimelineInput,
    WindowChoice,
};

/// The embedded font file (DejaVu Sans, Bitstream Vera licence, see
/// `assets/fonts/LICENSE-DejaVu.txt`).
static FONT_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Font family name the embedded font is registered under. It is also the
/// SVG `font-family` attribute, so viewers with DejaVu Sans show exactly the
/// measured layout and others fall back to their sans-serif.
pub const FONT_FAMILY: &str = "DejaVu Sans, sans-serif";

/// Errors while drawing or encoding a chart. None of them is the user's
/// fault: the input structs are validated by the commands that build them.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The embedded font could not be loaded by plotters.
    #[error("the embedded font assets/fonts/DejaVuSans.ttf could not be loaded")]
    Font,
    /// A plotters drawing call failed.
    #[error("drawing the chart failed: {0}")]
    Draw(String),
    /// Encoding the raster image as PNG failed.
    #[error("encoding the PNG failed: {0}")]
    Png(String),
    /// The chart has nothing to show (e.g. no finite point and no roof).
    #[error("nothing to plot: {0}")]
    Empty(String),
}

/// Maps any displayable plotters error into [`PlotError::Draw`].
pub(crate) trait OrPlotError<T> {
    /// Converts the error, keeping its message.
    fn or_plot(self) -> Result<T, PlotError>;
}

impl<T, E: std::fmt::Display> OrPlotError<T> for Result<T, E> {
    fn or_plot(self) -> Result<T, PlotError> {
        self.map_err(|e| PlotError::Draw(e.to_string()))
    }
}

/// Registers the embedded font with plotters once per process. Every model
/// builder and drawer calls this first (text widths come from the font).
pub fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, FONT_TTF).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// Image file format of a plot, chosen from the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Scalable vector graphics (text).
    Svg,
    /// Portable network graphics (RGB raster).
    Png,
}

impl ImageFormat {
    /// `.svg` → SVG, `.png` → PNG (case-insensitive); anything else is `None`
    /// and the command should reject the path.
    pub fn from_path(path: &Path) -> Option<ImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "svg" => Some(ImageFormat::Svg),
            "png" => Some(ImageFormat::Png),
            _ => None,
        }
    }
}

/// A chart model that can paint itself on any plotters backend at its fixed
/// size.
pub trait Chart {
    /// Canvas size in pixels (width, height).
    fn size_px(&self) -> (u32, u32);
    /// Paints the chart on `area`, whose size is [`Chart::size_px`].
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>;
}

/// Renders a chart as SVG text.
pub fn render_svg<C: Chart>(chart: &C) -> Result<String, PlotError> {
    ensure_font()?;
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, chart.size_px()).into_drawing_area();
        chart.draw(&area)?;
        area.present().or_plot()?;
    }
    Ok(out)
}

/// Renders a chart as PNG bytes (8-bit RGB).
pub fn render_png<C: Chart>(chart: &C) -> Result<Vec<u8>, PlotError> {
    ensure_font()?;
    let (w, h) = chart.size_px();
    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    {
        let area = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        chart.draw(&area)?;
        area.present().or_plot()?;
    }
    let mut png = Vec::new();
    // What `image`'s PNG encoder did before: fast deflate, adaptive filter.
    let mut enc = png::Encoder::new(&mut png, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    enc.set_filter(png::FilterType::Sub);
    enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    enc.write_header()
        .and_then(|mut w| w.write_image_data(&rgb).and_then(|()| w.finish()))
        .map_err(|e| PlotError::Png(e.to_string()))?;
    Ok(png)
}

/// Renders a chart in `format`: SVG text as UTF-8 bytes, or PNG bytes.
pub fn render<C: Chart>(chart: &C, format: ImageFormat) -> Result<Vec<u8>, PlotError> {
    match format {
        ImageFormat::Svg => render_svg(chart).map(String::into_bytes),
        ImageFormat::Png => render_png(chart),
    }
}
