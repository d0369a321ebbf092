//! Hessian 2.0 (work in progress).
