//! TF-style status: every failure is a `Status` with a canonical code and a message a user can act on.

use std::fmt;

/// The subset of TensorFlow's canonical error codes this runtime produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    InvalidArgument,
    NotFound,
    Unimplemented,
    FailedPrecondition,
    ResourceExhausted,
    OutOfRange,
    Internal,
    Aborted,
    Unavailable,
}

impl Code {
    /// The TF status code name, as JS sees it in `EagerError.code`.
    pub fn name(self) -> &'static str {
        match self {
            Code::InvalidArgument => "InvalidArgument",
            Code::NotFound => "NotFound",
            Code::Unimplemented => "Unimplemented",
            Code::FailedPrecondition => "FailedPrecondition",
            Code::ResourceExhausted => "ResourceExhausted",
            Code::OutOfRange => "OutOfRange",
            Code::Internal => "Internal",
            Code::Aborted => "Aborted",
            Code::Unavailable => "Unavailable",
        }
    }
}

/// Boxed: a `Result<T, Status>` is then `T` plus one pointer, so each of the ~3,000 `?` and error
/// returns moves a pointer, not a code and a `String` (a `Result<(), Status>` is one word).
#[derive(Clone, PartialEq, Eq)]
pub struct Status(Box<StatusParts>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusParts {
    pub code: Code,
    pub message: String,
}

impl std::ops::Deref for Status {
    type Target = StatusParts;
    fn deref(&self) -> &StatusParts {
        &self.0
    }
}

impl std::ops::DerefMut for Status {
    fn deref_mut(&mut self) -> &mut StatusParts {
        &mut self.0
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Status")
            .field("code", &self.code)
            .field("message", &self.message)
            .finish()
    }
}

/// Out of line: the box's allocation is not repeated at every error site.
#[inline(never)]
fn boxed(code: Code, message: String) -> Status {
    Status(Box::new(StatusParts { code, message }))
}

pub type Result<T> = std::result::Result<T, Status>;

/// What a message is made from: a `String` is moved in; a `&str` or `format_args!` is copied or
/// formatted out of line (`Into<String>` copied the text inline at each of the ~200 literal-message
/// error sites).
pub trait IntoMessage {
    fn into_message(self) -> String;
}

impl IntoMessage for String {
    fn into_message(self) -> String {
        self
    }
}

impl IntoMessage for &str {
    fn into_message(self) -> String {
        owned_message(self)
    }
}

impl IntoMessage for fmt::Arguments<'_> {
    fn into_message(self) -> String {
        formatted_message(self)
    }
}

#[inline(never)]
fn owned_message(s: &str) -> String {
    s.to_owned()
}

#[inline(never)]
fn formatted_message(args: fmt::Arguments<'_>) -> String {
    fmt::format(args)
}

impl Status {
    pub fn new(code: Code, message: impl IntoMessage) -> Self {
        boxed(code, message.into_message())
    }

    /// The message, moved out.
    pub fn into_message(self) -> String {
        self.0.message
    }

    /// Prefixes the message with where it happened (an op, a node), keeping the code.
    pub fn context(mut self, prefix: impl fmt::Display) -> Self {
        let prefix = prefix.to_string();
        // Many kernels name their op in their messages already: don't say it twice.
        let named = self
            .message
            .strip_prefix(prefix.as_str())
            .is_some_and(|rest| rest.starts_with(": "));
        if !named {
            self.message = format!("{prefix}: {}", self.message);
        }
        self
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl std::error::Error for Status {}

macro_rules! status_ctor {
    ($fn_name:ident, $code:ident) => {
        pub fn $fn_name(message: impl IntoMessage) -> Status {
            Status::new(Code::$code, message)
        }
    };
}

status_ctor!(invalid_argument, InvalidArgument);
status_ctor!(not_found, NotFound);
status_ctor!(unimplemented, Unimplemented);
status_ctor!(failed_precondition, FailedPrecondition);
status_ctor!(resource_exhausted, ResourceExhausted);
status_ctor!(internal, Internal);
status_ctor!(out_of_range, OutOfRange);
status_ctor!(unavailable, Unavailable);

/// Early-returns an InvalidArgument status unless `cond` holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::status::invalid_argument(format_args!($($fmt)+)));
        }
    };
}
