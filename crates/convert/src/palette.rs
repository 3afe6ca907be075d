//! Display colours for material indices: the game's material tables are not in
//! the model file, so exports give each index a distinct, stable colour
//! (a golden-ratio hue walk) so viewers show the batches apart.

/// The colour shown for MSH material `index`, linear RGB in 0..=1.
pub fn material_colour(index: u16) -> [f32; 3] {
    let h = (index as f32 * 0.618_034) % 1.0;
    hsv(h, 0.45, 0.85)
}

fn hsv(h: f32, s: f32, v: f32) -> [f32; 3] {
    let i = (h * 6.0).floor();
    let f = h * 6.0 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - f * s), v * (1.0 - (1.0 - f) * s));
    match i as i32 % 6 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    }
}
