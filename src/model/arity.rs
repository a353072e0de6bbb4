//! How many outputs a graph node has, so that a node input naming an output its producer lacks
//! (`split:3` of a two-way Split) fails at load, as TF's graph import does, not at the first run.

use crate::ops::AttrValue;

/// Outputs of a node running `op` with `data_inputs` inputs; `attr` reads its (model.json) attrs.
/// Every registered op not listed has exactly one output.
pub fn output_count<'a>(
    op: &str,
    data_inputs: usize,
    attr: impl Fn(&str) -> Option<&'a AttrValue>,
) -> usize {
    let int = |name: &str| match attr(name) {
        Some(AttrValue::Int(n)) => usize::try_from(*n).unwrap_or(0),
        _ => 0,
    };
    match op {
        "Split" | "SplitV" => int("num_split"),
        "Unpack" => int("num"),
        "IdentityN" | "ShapeN" => data_inputs,
        "FusedBatchNorm" | "FusedBatchNormV2" => 5,
        "FusedBatchNormV3" => 6,
        "TopKV2" | "Unique" | "UniqueV2" | "ListDiff" | "NonMaxSuppressionV4" => 2,
        "NonMaxSuppressionV5" | "StringSplit" => 3,
        "StringNGrams" => 2,
        "MaxPoolWithArgmax" | "SparseReshape" => 2,
        "SparseFillEmptyRows" => 4,
        // Splits + values; RaggedGather's splits are a list.
        "RaggedRange" => 2,
        "RaggedGather" => int("OUTPUT_RAGGED_RANK") + 1,
        // handle + flow; value + lengths; handle + element.
        "TensorArrayV3" | "TensorArrayConcatV3" | "TensorListConcat" | "TensorListConcatV2" => 2,
        "TensorListPopBack" => 2,
        "NoOp"
        | "AssignVariableOp"
        | "AssignAddVariableOp"
        | "AssignSubVariableOp"
        | "DestroyResourceOp"
        | "TensorArrayCloseV3"
        | "InitializeTable"
        | "InitializeTableV2"
        | "LookupTableImport"
        | "LookupTableImportV2" => 0,
        _ => 1,
    }
}
