	.file	"<string>"
	.functype	brighten_f32 (i32, f32, i32) -> (i32)
	.functype	halide_error_buffer_argument_is_null (i32, i32) -> (i32)
	.functype	halide_error_bad_dimensions (i32, i32, i32, i32) -> (i32)
	.functype	halide_error_host_is_null (i32, i32) -> (i32)
	.functype	halide_error_constraint_violated (i32, i32, i32, i32, i32) -> (i32)
	.functype	halide_error_bad_type (i32, i32, i32, i32) -> (i32)
	.functype	halide_error_access_out_of_bounds (i32, i32, i32, i32, i32, i32, i32) -> (i32)
	.section	.text.brighten_f32,"",@
	.globl	brighten_f32
	.type	brighten_f32,@function
brighten_f32:
	.functype	brighten_f32 (i32, f32, i32) -> (i32)
	.local  	i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, v128, i32, v128, v128, v128
	block   	
	local.get	0
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	call	halide_error_buffer_argument_is_null
	return
.LBB0_2:
	end_block
	block   	
	local.get	0
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	2
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	local.get	3
	i32.const	2
	call	halide_error_bad_dimensions
	return
.LBB0_4:
	end_block
	block   	
	local.get	0
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	4
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	call	halide_error_host_is_null
	return
.LBB0_6:
	end_block
	block   	
	local.get	2
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	call	halide_error_buffer_argument_is_null
	return
.LBB0_8:
	end_block
	block   	
	local.get	2
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	2
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	local.get	3
	i32.const	2
	call	halide_error_bad_dimensions
	return
.LBB0_10:
	end_block
	block   	
	local.get	2
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	5
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	call	halide_error_host_is_null
	return
.LBB0_12:
	end_block
	block   	
	local.get	0
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	6
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.2
	local.get	3
	i32.const	.L.str.3
	i32.const	1
	call	halide_error_constraint_violated
	return
.LBB0_14:
	end_block
	block   	
	local.get	0
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	0
	i32.const	73730
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	local.get	0
	i32.const	73730
	call	halide_error_bad_type
	return
.LBB0_16:
	end_block
	block   	
	local.get	2
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	0
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.4
	local.get	3
	i32.const	.L.str.3
	i32.const	1
	call	halide_error_constraint_violated
	return
.LBB0_18:
	end_block
	block   	
	local.get	2
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	73730
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	local.get	3
	i32.const	73730
	call	halide_error_bad_type
	return
.LBB0_20:
	end_block
	local.get	6
	i32.load	0
	local.set	7
	local.get	6
	i32.const	24
	i32.add 
	i32.load	0
	local.set	8
	local.get	6
	i32.const	20
	i32.add 
	i32.load	0
	local.set	9
	local.get	6
	i32.const	16
	i32.add 
	i32.load	0
	local.set	10
	local.get	0
	i32.const	16
	i32.add 
	i32.load	0
	local.set	11
	local.get	0
	i32.const	20
	i32.add 
	i32.load	0
	local.set	12
	local.get	0
	i32.const	24
	i32.add 
	i32.load	0
	local.set	13
	block   	
	local.get	0
	i32.load	0
	local.tee	14
	local.get	14
	local.get	0
	i32.const	4
	i32.add 
	i32.load	0
	i32.add 
	local.tee	15
	i32.const	-1
	i32.add 
	local.tee	16
	local.get	14
	i32.sub 
	local.tee	0
	i32.const	4
	i32.add 
	local.tee	17
	i32.const	-4
	i32.and 
	i32.const	-4
	i32.add 
	local.tee	18
	local.get	0
	i32.const	-3
	i32.add 
	local.tee	3
	local.get	18
	local.get	3
	i32.lt_s
	i32.select
	i32.add 
	i32.const	3
	i32.add 
	local.tee	18
	local.get	3
	i32.const	31
	i32.shr_s
	local.get	3
	i32.and 
	local.get	14
	i32.add 
	local.tee	19
	i32.lt_s
	local.tee	20
	br_if   	0
	local.get	19
	local.get	7
	i32.ge_s
	local.get	18
	local.get	6
	i32.const	4
	i32.add 
	i32.load	0
	local.get	7
	i32.add 
	local.tee	6
	i32.lt_s
	i32.and 
	br_if   	0
	i32.const	0
	i32.const	.L.str.5
	i32.const	0
	local.get	19
	local.get	18
	local.get	7
	local.get	6
	i32.const	-1
	i32.add 
	call	halide_error_access_out_of_bounds
	return
.LBB0_23:
	end_block
	local.get	12
	local.get	11
	i32.add 
	local.set	21
	block   	
	local.get	12
	i32.const	1
	i32.lt_s
	br_if   	0
	local.get	11
	local.get	10
	i32.lt_s
	local.get	21
	local.get	9
	local.get	10
	i32.add 
	local.tee	6
	i32.gt_s
	i32.or  
	i32.eqz
	br_if   	0
	i32.const	0
	i32.const	.L.str.5
	i32.const	1
	local.get	11
	local.get	21
	i32.const	-1
	i32.add 
	local.get	10
	local.get	6
	i32.const	-1
	i32.add 
	call	halide_error_access_out_of_bounds
	return
.LBB0_26:
	end_block
	block   	
	local.get	20
	br_if   	0
	local.get	0
	i32.const	2
	i32.gt_s
	local.get	18
	local.get	15
	i32.lt_s
	i32.and 
	br_if   	0
	i32.const	0
	i32.const	.L.str.6
	i32.const	0
	local.get	19
	local.get	18
	local.get	14
	local.get	16
	call	halide_error_access_out_of_bounds
	return
.LBB0_29:
	end_block
	block   	
	local.get	12
	i32.const	1
	i32.lt_s
	br_if   	0
	local.get	1
	f32x4.splat
	local.set	22
	block   	
	local.get	17
	i32.const	2
	i32.shr_s
	local.tee	0
	local.get	0
	local.get	3
	i32.const	2
	i32.shr_s
	i32.const	1
	i32.add 
	local.tee	6
	local.get	0
	local.get	6
	i32.lt_s
	i32.select
	local.tee	12
	local.get	0
	local.get	0
	i32.const	31
	i32.shr_s
	i32.and 
	local.tee	6
	local.get	12
	local.get	6
	i32.gt_s
	i32.select
	local.tee	23
	i32.le_s
	br_if   	0
	local.get	4
	local.get	14
	local.get	7
	i32.sub 
	i32.const	2
	i32.shl 
	i32.add 
	local.set	17
	block   	
	local.get	12
	i32.const	0
	i32.gt_s
	br_if   	0
	local.get	23
	i32.const	2
	i32.shl 
	local.set	20
	local.get	0
	local.get	23
	i32.sub 
	local.set	4
	local.get	11
	local.set	18
.LBB0_33:
	loop    	
	local.get	17
	local.get	18
	local.get	10
	i32.sub 
	local.get	8
	i32.mul 
	i32.const	2
	i32.shl 
	i32.add 
	local.set	12
	local.get	5
	local.get	18
	local.get	11
	i32.sub 
	local.get	13
	i32.mul 
	i32.const	2
	i32.shl 
	i32.add 
	local.set	7
	local.get	20
	local.set	0
	local.get	4
	local.set	6
.LBB0_34:
	loop    	
	local.get	7
	local.get	0
	local.get	3
	local.get	0
	local.get	3
	i32.lt_s
	i32.select
	i32.const	2
	i32.shl 
	local.tee	14
	i32.add 
	local.get	22
	local.get	12
	local.get	14
	i32.add 
	v128.load	0:p2align=2
	f32x4.mul
	v128.const	0x1p0, 0x1p0, 0x1p0, 0x1p0
	f32x4.pmin
	local.tee	24
	local.get	24
	v128.const	0x0p0, 0x0p0, 0x0p0, 0x0p0
	f32x4.lt
	v128.andnot
	v128.store	0:p2align=2
	local.get	0
	i32.const	4
	i32.add 
	local.set	0
	local.get	6
	i32.const	-1
	i32.add 
	local.tee	6
	br_if   	0
	end_loop
	local.get	18
	i32.const	1
	i32.add 
	local.tee	18
	local.get	21
	i32.lt_s
	br_if   	0
	br      	3
.LBB0_36:
	end_loop
	end_block
	local.get	4
	local.get	8
	local.get	11
	local.get	10
	i32.sub 
	i32.mul 
	i32.const	2
	i32.shl 
	local.get	6
	i32.const	4
	i32.shl 
	local.tee	12
	i32.add 
	local.get	14
	i32.const	2
	i32.shl 
	i32.add 
	local.get	7
	i32.const	2
	i32.shl 
	i32.sub 
	i32.add 
	local.set	20
	local.get	23
	i32.const	2
	i32.shl 
	local.set	19
	local.get	0
	local.get	23
	i32.sub 
	local.set	9
	local.get	13
	i32.const	2
	i32.shl 
	local.set	15
	local.get	8
	i32.const	2
	i32.shl 
	local.set	16
	local.get	23
	local.get	6
	i32.sub 
	local.set	23
	local.get	5
	local.get	12
	i32.add 
	local.set	4
	local.get	11
	local.set	18
.LBB0_37:
	loop    	
	local.get	17
	local.get	18
	local.get	10
	i32.sub 
	local.get	8
	i32.mul 
	i32.const	2
	i32.shl 
	i32.add 
	local.set	12
	local.get	5
	local.get	18
	local.get	11
	i32.sub 
	local.get	13
	i32.mul 
	i32.const	2
	i32.shl 
	i32.add 
	local.set	7
	local.get	4
	local.set	0
	local.get	20
	local.set	6
	local.get	23
	local.set	14
.LBB0_38:
	loop    	
	local.get	0
	local.get	22
	local.get	6
	v128.load	0:p2align=2
	f32x4.mul
	v128.const	0x1p0, 0x1p0, 0x1p0, 0x1p0
	local.tee	24
	f32x4.pmin
	local.tee	25
	local.get	25
	v128.const	0x0p0, 0x0p0, 0x0p0, 0x0p0
	local.tee	26
	f32x4.lt
	v128.andnot
	v128.store	0:p2align=2
	local.get	0
	i32.const	16
	i32.add 
	local.set	0
	local.get	6
	i32.const	16
	i32.add 
	local.set	6
	local.get	14
	i32.const	-1
	i32.add 
	local.tee	14
	br_if   	0
	end_loop
	local.get	19
	local.set	0
	local.get	9
	local.set	6
.LBB0_40:
	loop    	
	local.get	7
	local.get	0
	local.get	3
	local.get	0
	local.get	3
	i32.lt_s
	i32.select
	i32.const	2
	i32.shl 
	local.tee	14
	i32.add 
	local.get	22
	local.get	12
	local.get	14
	i32.add 
	v128.load	0:p2align=2
	f32x4.mul
	local.get	24
	f32x4.pmin
	local.tee	25
	local.get	25
	local.get	26
	f32x4.lt
	v128.andnot
	v128.store	0:p2align=2
	local.get	0
	i32.const	4
	i32.add 
	local.set	0
	local.get	6
	i32.const	-1
	i32.add 
	local.tee	6
	br_if   	0
	end_loop
	local.get	4
	local.get	15
	i32.add 
	local.set	4
	local.get	20
	local.get	16
	i32.add 
	local.set	20
	local.get	18
	i32.const	1
	i32.add 
	local.tee	18
	local.get	21
	i32.lt_s
	br_if   	0
	br      	2
.LBB0_42:
	end_loop
	end_block
	local.get	12
	i32.const	1
	i32.lt_s
	br_if   	0
	local.get	4
	local.get	8
	local.get	11
	local.get	10
	i32.sub 
	i32.mul 
	i32.const	2
	i32.shl 
	local.get	6
	i32.const	4
	i32.shl 
	local.tee	0
	i32.add 
	local.get	14
	i32.const	2
	i32.shl 
	i32.add 
	local.get	7
	i32.const	2
	i32.shl 
	i32.sub 
	i32.add 
	local.set	14
	local.get	13
	i32.const	2
	i32.shl 
	local.set	7
	local.get	8
	i32.const	2
	i32.shl 
	local.set	18
	local.get	23
	local.get	6
	i32.sub 
	local.set	20
	local.get	5
	local.get	0
	i32.add 
	local.set	12
.LBB0_44:
	loop    	
	local.get	12
	local.set	0
	local.get	14
	local.set	3
	local.get	20
	local.set	6
.LBB0_45:
	loop    	
	local.get	0
	local.get	22
	local.get	3
	v128.load	0:p2align=2
	f32x4.mul
	v128.const	0x1p0, 0x1p0, 0x1p0, 0x1p0
	f32x4.pmin
	local.tee	24
	local.get	24
	v128.const	0x0p0, 0x0p0, 0x0p0, 0x0p0
	f32x4.lt
	v128.andnot
	v128.store	0:p2align=2
	local.get	0
	i32.const	16
	i32.add 
	local.set	0
	local.get	3
	i32.const	16
	i32.add 
	local.set	3
	local.get	6
	i32.const	-1
	i32.add 
	local.tee	6
	br_if   	0
	end_loop
	local.get	12
	local.get	7
	i32.add 
	local.set	12
	local.get	14
	local.get	18
	i32.add 
	local.set	14
	local.get	11
	i32.const	1
	i32.add 
	local.tee	11
	local.get	21
	i32.lt_s
	br_if   	0
.LBB0_47:
	end_loop
	end_block
	local.get	2
	i32.const	16
	i32.add 
	local.tee	0
	local.get	0
	i64.load	0
	i64.const	1
	i64.or  
	i64.store	0
	i32.const	0
	end_function

	.type	.L.str.0,@object
	.section	.rodata..L.str.0,"",@
.L.str.0:
	.asciz	"input"
	.size	.L.str.0, 6

	.type	.L.str.1,@object
	.section	.rodata..L.str.1,"",@
.L.str.1:
	.asciz	"brighten"
	.size	.L.str.1, 9

	.type	.L.str.2,@object
	.section	.rodata..L.str.2,"",@
.L.str.2:
	.asciz	"input.stride.0"
	.size	.L.str.2, 15

	.type	.L.str.3,@object
	.section	.rodata..L.str.3,"",@
.L.str.3:
	.asciz	"1"
	.size	.L.str.3, 2

	.type	.L.str.4,@object
	.section	.rodata..L.str.4,"",@
	.p2align	4, 0x0
.L.str.4:
	.asciz	"brighten.stride.0"
	.size	.L.str.4, 18

	.type	.L.str.5,@object
	.section	.rodata..L.str.5,"",@
	.p2align	4, 0x0
.L.str.5:
	.asciz	"Input buffer input"
	.size	.L.str.5, 19

	.type	.L.str.6,@object
	.section	.rodata..L.str.6,"",@
	.p2align	4, 0x0
.L.str.6:
	.asciz	"Output buffer brighten"
	.size	.L.str.6, 23

	.section	.custom_section.target_features,"",@
	.int8	3
	.int8	43
	.int8	19
	.ascii	"nontrapping-fptoint"
	.int8	43
	.int8	8
	.ascii	"sign-ext"
	.int8	43
	.int8	7
	.ascii	"simd128"
	.section	.rodata..L.str.6,"",@
