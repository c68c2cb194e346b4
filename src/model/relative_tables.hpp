#pragma once
// Internal to model: a DeBERTa layer's position tables (encoder_layer.hpp): the shared
// relative-position embeddings, dropped with this layer's mask and projected by its key and
// query linears, Kr and Qr, and their backward. Only the rows the batch's sequences reach
// (RelativeEmbeddings::first, count) are projected; the others are never read.
// relative_tables.cpp also holds the Backbone members that prepare the shared table
// (plan_relative, relative_forward, relative_backward, zero_padding_rows).
#include "shmtrain/model/encoder_layer.hpp"
#include "shmtrain/tensor/disentangled_attention.hpp"

namespace shmtrain::model {

// Fills c.pos_key and c.pos_query (and, with bf16 weights, their bf16 copies) for the reached rows.
void project_position_tables(LayerCache& c, const LayerParams& w, const LayerDims& d);

// The tables as the attention kernel reads them (forward), and where its backward writes their
// gradients (s.d_pos_key, s.d_pos_query).
tensor::PositionTables position_tables(const LayerCache& c, const LayerParams& w, const LayerDims& d,
                                       LayerScratch* s);

// From the attention backward's d_pos_key / d_pos_query: the projections' weight and bias
// gradients into g, and the table's gradient (through this layer's dropout) added to
// d.form.relative->grad.
void position_tables_backward(LayerScratch& s, const LayerCache& c, const LayerParams& w,
                              const LayerParams& g, const LayerDims& d);

}  // namespace shmtrain::model
