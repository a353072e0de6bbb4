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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Status>;

impl Status {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Status {
            code,
            message: message.into(),
        }
    }

    /// Prefixes the message with where it happened (an op, a node), keeping the code.
    pub fn context(mut self, prefix: impl fmt::Display) -> Self {
        self.message = format!("{prefix}: {}", self.message);
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
        pub fn $fn_name(message: impl Into<String>) -> Status {
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
            return Err($crate::status::invalid_argument(format!($($fmt)+)));
        }
    };
}
