//! The value a `DT_RESOURCE` tensor holds. It lives with the tensor types because a tensor must
//! carry it; the resource manager above gives it meaning.

/// Identifies one resource of one manager; handles of another context are rejected, not confused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceHandle {
    pub manager: u32,
    pub id: u32,
}
