//! Every visual constant of the charts in one place: canvas sizes, margins,
//! font sizes, colours per compute path / memory level / gap class / op kind.

use crate::gaps::GapClass;
use crate::roofs::{ComputePath, MemoryLevel};
use plotters::style::RGBColor;

/// Canvas of the roofline and calibration charts, in pixels (width, height).
pub const ROOFLINE_SIZE_PX: (u32, u32) = (1200, 800);
/// Width of the timeline canvas, in pixels; its height is
/// `MARGIN_PX.1 + lanes × LANE_HEIGHT_PX + MARGIN_PX.3` (at least 120 px of
/// lanes), so the same input always gives the same size.
pub const TIMELINE_WIDTH_PX: u32 = 1400;
/// Height of one timeline lane, in pixels.
pub const LANE_HEIGHT_PX: i32 = 44;
/// Canvas of the gap histogram, in pixels.
pub const HISTOGRAM_SIZE_PX: (u32, u32) = (1100, 650);

/// Space between the canvas edge and the plot frame: left, top, right,
/// bottom, in pixels. Left/bottom hold tick labels and axis titles, top the
/// chart title and subtitle.
pub const MARGIN_PX: (i32, i32, i32, i32) = (145, 80, 40, 80);
/// Width reserved for lane labels left of the timeline frame, in pixels.
pub const LANE_LABEL_WIDTH_PX: i32 = 230;

/// Font sizes in plotters units (plotters draws glyphs at `size / 1.24`
/// pixels per em; SVG `font-size` is written the same way).
pub const TITLE_FONT: f64 = 26.0;
/// Subtitle (roof source, window) font size.
pub const SUBTITLE_FONT: f64 = 18.0;
/// Axis title font size.
pub const AXIS_TITLE_FONT: f64 = 20.0;
/// Tick label font size.
pub const TICK_FONT: f64 = 18.0;
/// Roof and kernel label font size.
pub const LABEL_FONT: f64 = 16.0;
/// Legend font size.
pub const LEGEND_FONT: f64 = 16.0;

/// Background.
pub const BACKGROUND: RGBColor = RGBColor(255, 255, 255);
/// Text, frame and ticks.
pub const INK: RGBColor = RGBColor(30, 30, 30);
/// Secondary text (subtitles, roof sources).
pub const INK_SOFT: RGBColor = RGBColor(90, 90, 90);
/// Decade grid lines.
pub const GRID: RGBColor = RGBColor(215, 215, 215);
/// Minor grid lines (2..9 × decade).
pub const GRID_MINOR: RGBColor = RGBColor(238, 238, 238);
/// Outline of points flagged above their roof (a measurement or roof problem).
pub const ABOVE_ROOF: RGBColor = RGBColor(220, 0, 0);
/// Leader lines from a kernel label to its point.
pub const LEADER: RGBColor = RGBColor(140, 140, 140);

/// Largest kernel marker radius (the kernel with the most time), in pixels.
pub const MARKER_MAX_RADIUS_PX: f64 = 22.0;
/// Smallest marker radius, so short kernels stay visible, in pixels.
pub const MARKER_MIN_RADIUS_PX: f64 = 3.0;
/// Padding kept around every label box, in pixels.
pub const LABEL_PAD_PX: i32 = 3;
/// Longest kernel name shown in a label, in characters (ellipsized).
pub const LABEL_MAX_CHARS: usize = crate::roofline::names::LABEL_CHARS;

/// Colour of a compute path's roof and points (colour-blind-safe Okabe–Ito
/// and Tableau hues; tensor paths darker than CUDA-core paths).
pub fn path_color(path: ComputePath) -> RGBColor {
    match path {
        ComputePath::Fp64 => RGBColor(86, 180, 233),
        ComputePath::Fp32 => RGBColor(0, 114, 178),
        ComputePath::Fp16 => RGBColor(0, 158, 115),
        ComputePath::TensorFp64 => RGBColor(117, 112, 179),
        ComputePath::TensorTf32 => RGBColor(230, 159, 0),
        ComputePath::TensorFp16 => RGBColor(204, 121, 167),
        ComputePath::TensorBf16 => RGBColor(213, 94, 0),
        ComputePath::TensorFp8 => RGBColor(140, 86, 75),
        ComputePath::TensorInt8 => RGBColor(127, 127, 127),
        ComputePath::TensorFp4 => RGBColor(188, 189, 34),
    }
}

/// Colour of points whose compute path is unknown.
pub const UNKNOWN_PATH: RGBColor = RGBColor(60, 60, 60);

/// Colour of a memory level's sloped roof.
pub fn level_color(level: MemoryLevel) -> RGBColor {
    match level {
        MemoryLevel::Dram => RGBColor(20, 20, 20),
        MemoryLevel::L2 => RGBColor(100, 100, 100),
        MemoryLevel::L1 => RGBColor(160, 160, 160),
    }
}

/// Colour of a gap class (timeline gaps and histogram stacks).
pub fn gap_color(class: GapClass) -> RGBColor {
    match class {
        GapClass::HostBound => RGBColor(213, 94, 0),
        GapClass::LaunchInFlight => RGBColor(230, 159, 0),
        GapClass::LaunchLatency => RGBColor(240, 228, 66),
        GapClass::QueuedDependency => RGBColor(86, 180, 233),
        GapClass::CopyScheduling => RGBColor(188, 189, 34),
        GapClass::Synchronization => RGBColor(204, 121, 167),
        GapClass::SyncDrain => RGBColor(230, 170, 205),
        GapClass::PageableCopy => RGBColor(140, 86, 75),
        GapClass::Unattributed => RGBColor(160, 160, 160),
    }
}

/// Kernel bars on the timeline.
pub const KERNEL_COLOR: RGBColor = RGBColor(0, 114, 178);
/// Memcpy bars on the timeline.
pub const MEMCPY_COLOR: RGBColor = RGBColor(0, 158, 115);
/// Memset bars on the timeline.
pub const MEMSET_COLOR: RGBColor = RGBColor(117, 112, 179);

/// Colours of calibration sweep series, cycled in series order.
pub const SERIES_COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(117, 112, 179),
    RGBColor(140, 86, 75),
];
